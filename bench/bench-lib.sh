# symcut benchmarks — shell functions the benchmark scripts share
# (bench/bench_build.sh, bench/bench_scale.sh source it).

mlp_forward() { # $1: call nodes (a multiple of 4 is kept)
    awk -v n="$1" 'BEGIN {
        q = "\""; sx = q "f32[8, 16][16, 1]cpu" q; sw = q "f32[16, 16][16, 1]cpu" q
        st = q "f32[16, 16][1, 16]cpu" q
        print "class forward_fn(torch.nn.Module):"
        print "    def forward(self, primals):"
        print "        arg0_1: " sx "; arg1_1: " sw "; "
        print "    "
        print "        arg0_1, arg1_1, = fx_pytree.tree_flatten_spec([primals], self._in_spec)"
        x = "arg0_1"
        for (i = 0; i < int(n / 4); i++) {
            s = i ? "_" i : ""
            print "        t" s ": " st " = torch.ops.aten.t.default(arg1_1)"
            print "        mm" s ": " sx " = torch.ops.aten.mm.default(" x ", t" s ")"
            print "        relu" s ": " sx " = torch.ops.aten.relu.default(mm" s ")"
            print "        add" s ": " sx " = torch.ops.aten.add.Tensor(relu" s ", " x ")"
            x = "add" s
        }
        print "        return pytree.tree_unflatten([" x "], self._out_spec)"
    }'
}
