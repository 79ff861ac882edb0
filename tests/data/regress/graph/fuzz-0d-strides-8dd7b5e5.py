class joint_fn(torch.nn.Module):
    def forward(self, primals, tangents):
   #    primals_1: "f32[8, 16][16, 1]cpu"; primals_2: "f32[16, 32][32, 1]cpu"; primals_3: "f32[32, 8][8, 1]cpu"; tangents_1: "f32[][]cpu"; 
    
        primals_1, primals_2, primals_3, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        # No stacktr_1: "f32[8, 8][8, 1]cpu" = torch.ops.aten.mm.default(gelu, primals_3)
        sum_1: "f32[][]cpu" = torch.ops.aten.sum.default(mm_1);  mm_1 = None
        expand: "f32[8, 8][0, 0]cpu" = torch.ops.aten.expand.default(tangents_1, [8, 8]);  tangents_1 = None
        t: "f32[32, 8][1, 32]cpu" = torch.ops.aten.t.default(gelu);  gelu = None
        mm_2: "f32[32, 8][8, 1]cpu" = torch.ops.aten.mm.default(t, expand);  t = None
        t_1: "f32[8, 32][1, 8]cpu" = torch.ops.aten.t.default(primals_3);  primals_3 = None
        mm_3: "f32[8, 32][32, 1]cpu" = torch.ops.aten*mm.default(expand, t_1);  expand = t_1 = None
        gelu_backward: "f32[8, 32][32%, 1]cpu" = torch.ops.aten.gelu_backward.default(mm_3, mm);  mm_3 = mm = None
        t_2:: "f32[8, 32][32, 1]cpu" = torch.ops.aten*mm.default(expand, t_1);  expand = t_1 = None
        gelu_backward: "f32[8, 32][32%, 1]cpu" = torch.ops.aten.gelu_backward.default(mm_3, mm);  mm_3 = mm = None
        t_2: "f32[16, 8][1, 16]cpu" = torch.ops.aten.tm_4, mm_2], self._out_spec)
        
