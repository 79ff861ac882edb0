"$SYMCUT" random --verbose --seed 1 --nodes 12 2>&1 >/dev/null | sed -E -e 's/\([0-9]+\.[0-9]+ s\)/(T s)/' -e 's/total [0-9]+\.[0-9]+ s, peak memory [0-9]+\.[0-9] MB/total T s, peak memory M MB/'
