$SYMCUT partition does-not-exist.txt
