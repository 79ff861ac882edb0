{ "$SYMCUT" joint -v no-such-file.txt; echo "status $?"; } 2>&1 | sed -E -e 's/\([0-9]+\.[0-9]+ s\)/(T s)/' -e 's/total [0-9]+\.[0-9]+ s, peak memory [0-9]+\.[0-9] MB/total T s, peak memory M MB/'
