"$SYMCUT" graph -q no-such-file.txt
