d=$(mktemp -d) && cd "$d" && printf 's0 + 1\ns0 +\000 1\n' >nul.txt && "$SYMCUT" expr simplify -f nul.txt; s=$?; cd / && rm -rf "$d"; exit $s
