def forward(self, x: "f32[][]cpu"):
    return [x]
