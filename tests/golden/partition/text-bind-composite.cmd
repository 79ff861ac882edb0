$SYMCUT partition --forward bind-composite.forward.txt --no-timings 2>&1
