"""The model zoo: small models whose joint graphs torch 2.13 traces.

Every entry of ZOO is a Case: a name, a builder returning (module, inputs)
from a seeded generator, and how to compile it (dynamic sizes, bfloat16
autocast).  Widths are small so that the committed graphs and data stay
small; the graphs have the structure of the full-size models.
"""
import dataclasses
import math
from typing import Callable

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclasses.dataclass
class Case:
    name: str
    build: Callable          # build(gen) -> (nn.Module, tuple of inputs)
    notes: str
    dynamic: bool = False
    autocast_bf16: bool = False
    random: bool = False     # the graph draws random numbers (dropout)
    group: str = ""
    no_mkldnn: bool = False  # trace with torch.backends.mkldnn off


# ---- MLPs ------------------------------------------------------------------

class MLP(nn.Module):
    def __init__(self, act, d=32, h=64):
        super().__init__()
        self.fc1 = nn.Linear(d, h)
        self.fc2 = nn.Linear(h, d)
        self.act = act

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x))).float()


def _mlp(act):
    def build(gen):
        m = MLP(act)
        return m, (torch.randn(8, 32, generator=gen),)
    return build


# ---- CNN with BatchNorm, MaxPool, AdaptiveAvgPool --------------------------

class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        out = self.fc(x)
        return out.float()


def _cnn(gen):
    return CNN(), (torch.randn(4, 3, 16, 16, generator=gen),)


# ---- ResNet-18-style -------------------------------------------------------

class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        s = x if self.down is None else self.down(x)
        return F.relu(y + s)


class ResNet(nn.Module):
    """ResNet-18's layout (stem conv-bn-relu-maxpool, BasicBlocks, stride-2
    stages with a 1x1 downsample, global pool, fc) at width 8 with one
    block per stage and two stages."""

    def __init__(self, w=8, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, w, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(w)
        self.layer1 = BasicBlock(w, w, 1)
        self.layer2 = BasicBlock(w, 2 * w, 2)
        self.fc = nn.Linear(2 * w, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 3, 2, 1)
        x = self.layer2(self.layer1(x))
        x = torch.flatten(F.adaptive_avg_pool2d(x, (1, 1)), 1)
        return self.fc(x).float()


def _resnet(gen):
    return ResNet(), (torch.randn(2, 3, 16, 16, generator=gen),)


# ---- MobileNetV2-style -----------------------------------------------------

class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        h = cin * expand
        self.use_res = stride == 1 and cin == cout
        self.block = nn.Sequential(
            nn.Conv2d(cin, h, 1, bias=False), nn.BatchNorm2d(h), nn.ReLU6(),
            nn.Conv2d(h, h, 3, stride, 1, groups=h, bias=False),  # depthwise
            nn.BatchNorm2d(h), nn.ReLU6(),
            nn.Conv2d(h, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.block(x)
        return x + y if self.use_res else y


class MobileNetV2(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False),
                                  nn.BatchNorm2d(8), nn.ReLU6())
        self.blocks = nn.Sequential(InvertedResidual(8, 8, 1, 2),
                                    InvertedResidual(8, 16, 2, 2))
        self.head = nn.Linear(16, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.head(x).float()


def _mobilenet(gen):
    return MobileNetV2(), (torch.randn(2, 3, 16, 16, generator=gen),)


# ---- nn.TransformerEncoderLayer, train mode (dropout) ----------------------

def _tel(gen):
    m = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=0.1,
                                   batch_first=True)
    return m, (torch.randn(2, 8, 32, generator=gen),)


# ---- GPT-2 block -----------------------------------------------------------

class GPT2Block(nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, 4 * d)
        self.mlp_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.c_proj(y)
        x = x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))
        return x.float()


def _gpt2(gen):
    return GPT2Block(), (torch.randn(2, 8, 32, generator=gen),)


# ---- LLaMA block -----------------------------------------------------------

class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return xf.type_as(x) * self.weight


def _rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class LlamaBlock(nn.Module):
    def __init__(self, d=32, heads=4, hidden=64, max_t=16):
        super().__init__()
        self.heads = heads
        self.hd = d // heads
        self.attention_norm = RMSNorm(d)
        self.wq = nn.Linear(d, d, bias=False)
        self.wk = nn.Linear(d, d, bias=False)
        self.wv = nn.Linear(d, d, bias=False)
        self.wo = nn.Linear(d, d, bias=False)
        self.ffn_norm = RMSNorm(d)
        self.w1 = nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)
        self.w3 = nn.Linear(d, hidden, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        t = torch.arange(max_t).float()
        freqs = torch.outer(t, inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos(), persistent=False)
        self.register_buffer("sin", emb.sin(), persistent=False)

    def forward(self, x):
        B, T, C = x.shape
        h = self.attention_norm(x)
        q = self.wq(h).view(B, T, self.heads, self.hd).transpose(1, 2)
        k = self.wk(h).view(B, T, self.heads, self.hd).transpose(1, 2)
        v = self.wv(h).view(B, T, self.heads, self.hd).transpose(1, 2)
        cos, sin = self.cos[:T], self.sin[:T]
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.wo(y.transpose(1, 2).reshape(B, T, C))
        h = self.ffn_norm(x)
        x = x + self.w2(F.silu(self.w1(h)) * self.w3(h))
        return x.float()


def _llama(gen):
    return LlamaBlock(), (torch.randn(2, 8, 32, generator=gen),)


# ---- Embedding + cross-entropy ---------------------------------------------

class EmbedCE(nn.Module):
    def __init__(self, vocab=64, d=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.fc = nn.Linear(d, vocab)

    def forward(self, tokens, targets):
        logits = self.fc(self.emb(tokens))
        return F.cross_entropy(logits.flatten(0, 1).float(), targets.flatten())


def _embed_ce(gen):
    tokens = torch.randint(0, 64, (4, 8), generator=gen)
    targets = torch.randint(0, 64, (4, 8), generator=gen)
    return EmbedCE(), (tokens, targets)


# ---- LSTM and GRU ----------------------------------------------------------

class RNNHead(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(8, 16, batch_first=True)
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


def _rnn(cell):
    def build(gen):
        return RNNHead(cell), (torch.randn(2, 4, 8, generator=gen),)
    return build


# ---- Input mutation (copy_) ------------------------------------------------

class Mutate(nn.Module):
    """Writes a running statistic into a buffer in place (copy_) and into
    its input (add_ on a tensor that needs no gradient)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.register_buffer("running", torch.zeros(16))

    def forward(self, x, acc):
        y = torch.tanh(self.fc(x))
        self.running.copy_(0.9 * self.running + 0.1 * y.detach().mean(0))
        acc.add_(1.0)
        return y * acc


def _mutate(gen):
    return Mutate(), (torch.randn(8, 16, generator=gen), torch.zeros(8, 16))


# ---- Data-dependent sizes --------------------------------------------------

class DataDependent(nn.Module):
    """nonzero, masked_select and .item(): sizes and a scalar known only at
    run time (unbacked symbols)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x, mask):
        y = self.fc(x)
        idx = torch.nonzero(mask.flatten()).squeeze(1)
        picked = y.flatten().index_select(0, idx)
        sel = torch.masked_select(y, mask)
        n = mask.sum().item()
        torch._check(n >= 1)
        return picked.sum() + sel.sum() / n


def _datadep(gen):
    mask = torch.rand(8, 16, generator=gen) > 0.5
    return DataDependent(), (torch.randn(8, 16, generator=gen), mask)


# ---- The zoo ---------------------------------------------------------------

def _cases():
    out = []

    def add(name, build, notes, variants=("",), random=False, group=None, no_mkldnn=False):
        for v in variants:
            out.append(Case(name + v, build, notes + {
                "": "", "_dyn": " | torch.compile(dynamic=True)",
                "_bf16": " | torch.autocast('cpu', torch.bfloat16)"}[v],
                dynamic=(v == "_dyn"), autocast_bf16=(v == "_bf16"),
                random=random, group=group or name, no_mkldnn=no_mkldnn))

    add("mlp_gelu", _mlp(nn.GELU()), "Linear(32,64)-GELU-Linear(64,32), x[8,32]",
        ("", "_dyn", "_bf16"))
    add("mlp_relu", _mlp(nn.ReLU()), "Linear(32,64)-ReLU-Linear(64,32), x[8,32]")
    add("mlp_silu", _mlp(nn.SiLU()), "Linear(32,64)-SiLU-Linear(64,32), x[8,32]",
        ("", "_dyn"))
    add("cnn", _cnn, "2x[Conv2d-BatchNorm2d-ReLU], MaxPool2d, AdaptiveAvgPool2d, "
        "Linear; train mode; x[4,3,16,16]", ("", "_dyn", "_bf16"))
    add("gpt2_block", _gpt2, "GPT-2 block: LayerNorm, c_attn, "
        "scaled_dot_product_attention(is_causal=True), c_proj, GELU(tanh) MLP; "
        "d=32, 4 heads; x[2,8,32]", ("", "_dyn", "_bf16"))
    add("llama_block", _llama, "LLaMA block: RMSNorm, rotary embeddings, causal "
        "scaled_dot_product_attention, SwiGLU; d=32, 4 heads, hidden 64; x[2,8,32]",
        ("", "_dyn", "_bf16"))
    add("embedding_ce", _embed_ce, "Embedding(64,16)-Linear(16,64)-cross_entropy; "
        "tokens[4,8], targets[4,8]", ("", "_dyn"))
    add("resnet", _resnet, "ResNet-18-style: stem conv-BN-ReLU-maxpool, "
        "BasicBlock(8), BasicBlock(8->16, stride 2, 1x1 downsample), avgpool, fc; "
        "train mode; x[2,3,16,16]", ("", "_dyn"))
    add("mobilenetv2", _mobilenet, "MobileNetV2-style: stem, 2 inverted "
        "residuals (1x1 expand, 3x3 depthwise, ReLU6, 1x1 project), avgpool, "
        "Linear; train mode; x[2,3,16,16]", ("", "_dyn"))
    add("transformer_encoder_layer", _tel, "nn.TransformerEncoderLayer(32, 4, "
        "dim_feedforward=64, dropout=0.1, batch_first=True), train mode; x[2,8,32]",
        ("", "_dyn"), random=True)
    add("lstm", _rnn(nn.LSTM), "nn.LSTM(8,16,batch_first=True)-Linear(16,4) on "
        "the last step; x[2,4,8]; mkldnn off", ("", "_dyn"), no_mkldnn=True)
    add("gru", _rnn(nn.GRU), "nn.GRU(8,16,batch_first=True)-Linear(16,4) on "
        "the last step; x[2,4,8]")
    add("input_mutation", _mutate, "buffer.copy_(...) and acc.add_(1) on an "
        "input, Linear(16,16)-tanh; x[8,16]", ("", "_dyn"))
    add("data_dependent", _datadep, "nonzero, index_select, masked_select, "
        ".item() with torch._check; Linear(16,16); x[8,16]")
    return out


ZOO = _cases()
BY_NAME = {c.name: c for c in ZOO}
