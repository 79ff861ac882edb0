t=$(mktemp -d); $SYMCUT partition ../../../examples/mlp_gelu.joint.txt --tag nosuchnode=must_save --fw "$t/fw.txt" --bw "$t/bw.txt" -o "$t/out.txt"; s=$?; ls "$t"; rm -rf "$t"; exit $s
