printf 'def forward(self, x: "f32[8, 4][4, 1]cpu", y: "f32[4, 3][3, 1]cpu"):\n    mm: "f32[8, 4][4, 1]cpu" = torch.ops.aten.mm.default(x, y)\n    return [mm]\n' | $SYMCUT graph -
