def forward(self, x: "f32[3, -3][3, 1]cpu"):
    return [x]
