def forward(self, x: "f32[100000000000000000000][1]cpu"):
    return [x]
