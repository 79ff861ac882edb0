$SYMCUT partition --forward bind-composite.forward.txt --no-timings --format json | sed -n '/"saved_symints"/,/"saved_bytes"/p'
