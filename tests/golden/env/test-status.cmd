"$SYMCUT" env test-status.env; echo "status $?"; sed '$d' test-status.env | "$SYMCUT" env; echo "status $?"; printf 'sym s0 = 8\nguard s0 > 4\ntest s0=2\nbogus\n' | "$SYMCUT" env
