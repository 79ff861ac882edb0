d=$(mktemp -d); mkdir "$d/dir"; cd "$d"; "$SYMCUT" joint "$OLDPWD/../../../examples/mlp_gelu.forward.txt" -o dir; s=$?; echo "files: $(ls dir | wc -l)"; cd /; rm -rf "$d"; exit $s
