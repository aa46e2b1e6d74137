#!/usr/bin/python3
"""Build the minilm-arch-random-fixture test model.

Usage: /usr/bin/python3 scripts/gen-minilm-fixture.py OUT_DIR [--tokenizer PATH] [--seed N]

Writes OUT_DIR/model.onnx: an ONNX graph with the exact all-MiniLM-L6-v2
architecture (BERT encoder: 6 layers, hidden 384, 12 heads, intermediate 1536,
vocabulary 30522, 512 positions, 2 token types; inputs input_ids,
attention_mask and token_type_ids, int64 [batch, seq]; output
last_hidden_state, float32 [batch, seq, 384]) filled with seeded random
weights, and copies the real MiniLM tokenizer.json next to it (by default
the repository's testdata/models/all-MiniLM-L6-v2/tokenizer.json).

The weights are random: the model measures speed and plumbing, never quality.
Needs Debian's python3-onnx and python3-numpy; run it with /usr/bin/python3.
"""

import argparse
import hashlib
import os
import shutil
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as exc:  # pragma: no cover - environment check
    sys.exit(
        "gen-minilm-fixture: %s; install Debian's python3-onnx and python3-numpy "
        "and run this script with /usr/bin/python3" % exc
    )

LAYERS = 6
HIDDEN = 384
HEADS = 12
HEAD_DIM = HIDDEN // HEADS
INTERMEDIATE = 1536
VOCAB = 30522
MAX_POSITIONS = 512
TYPE_VOCAB = 2
LN_EPS = 1e-12
OPSET = 17


class Graph:
    """Collects nodes and initializers with unique names."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes = []
        self.inits = []
        self.count = 0

    def name(self, prefix):
        self.count += 1
        return "%s_%d" % (prefix, self.count)

    def const(self, prefix, array):
        n = self.name(prefix)
        self.inits.append(numpy_helper.from_array(array, n))
        return n

    def weight(self, prefix, shape, std=0.02):
        a = (self.rng.standard_normal(shape) * std).astype(np.float32)
        return self.const(prefix, a)

    def op(self, op_type, inputs, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], **attrs))
        return out

    def linear(self, x, n_in, n_out, prefix):
        w = self.weight(prefix + "_w", (n_in, n_out))
        b = self.weight(prefix + "_b", (n_out,))
        return self.op("Add", [self.op("MatMul", [x, w]), b])

    def layer_norm(self, x, prefix):
        gamma = self.const(prefix + "_gamma", (1.0 + self.rng.standard_normal(HIDDEN) * 0.02).astype(np.float32))
        beta = self.weight(prefix + "_beta", (HIDDEN,))
        return self.op("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=LN_EPS)

    def gelu(self, x):
        # Exact GELU: 0.5 * x * (1 + erf(x / sqrt(2))), as in BERT.
        inv_sqrt2 = self.const("inv_sqrt2", np.array(1.0 / np.sqrt(2.0), dtype=np.float32))
        one = self.const("one", np.array(1.0, dtype=np.float32))
        half = self.const("half", np.array(0.5, dtype=np.float32))
        e = self.op("Erf", [self.op("Mul", [x, inv_sqrt2])])
        return self.op("Mul", [self.op("Mul", [x, half]), self.op("Add", [e, one])])


def build(seed):
    g = Graph(np.random.default_rng(seed))

    # Embeddings: word + position + token type, then LayerNorm.
    word = g.op("Gather", [g.weight("word_embeddings", (VOCAB, HIDDEN)), "input_ids"], axis=0)
    shape = g.op("Shape", ["input_ids"])
    seq_len = g.op("Gather", [shape, g.const("idx1", np.array(1, dtype=np.int64))], axis=0)
    positions = g.op(
        "Range",
        [g.const("zero", np.array(0, dtype=np.int64)), seq_len, g.const("step", np.array(1, dtype=np.int64))],
    )
    pos = g.op("Gather", [g.weight("position_embeddings", (MAX_POSITIONS, HIDDEN)), positions], axis=0)
    typ = g.op("Gather", [g.weight("token_type_embeddings", (TYPE_VOCAB, HIDDEN)), "token_type_ids"], axis=0)
    x = g.layer_norm(g.op("Add", [g.op("Add", [word, pos]), typ]), "emb_ln")

    # Additive attention mask [batch, 1, 1, seq]: 0 for tokens, -10000 for padding.
    mask = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    inverted = g.op("Sub", [g.const("one", np.array(1.0, dtype=np.float32)), mask])
    additive = g.op("Mul", [inverted, g.const("neg", np.array(-10000.0, dtype=np.float32))])
    additive = g.op("Unsqueeze", [additive, g.const("axes", np.array([1, 2], dtype=np.int64))])

    split_shape = g.const("split_shape", np.array([0, 0, HEADS, HEAD_DIM], dtype=np.int64))
    merge_shape = g.const("merge_shape", np.array([0, 0, HIDDEN], dtype=np.int64))
    scale = g.const("scale", np.array(1.0 / np.sqrt(HEAD_DIM), dtype=np.float32))

    for layer in range(LAYERS):
        p = "layer%d" % layer

        def heads(t):
            # [batch, seq, hidden] -> [batch, heads, seq, head_dim]
            return g.op("Transpose", [g.op("Reshape", [t, split_shape])], perm=[0, 2, 1, 3])

        q = heads(g.linear(x, HIDDEN, HIDDEN, p + "_q"))
        k = heads(g.linear(x, HIDDEN, HIDDEN, p + "_k"))
        v = heads(g.linear(x, HIDDEN, HIDDEN, p + "_v"))
        kt = g.op("Transpose", [k], perm=[0, 1, 3, 2])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, kt]), scale]), additive])
        probs = g.op("Softmax", [scores], axis=-1)
        ctx = g.op("MatMul", [probs, v])
        ctx = g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]), merge_shape])
        attn = g.linear(ctx, HIDDEN, HIDDEN, p + "_o")
        x = g.layer_norm(g.op("Add", [x, attn]), p + "_attn_ln")
        ffn = g.linear(g.gelu(g.linear(x, HIDDEN, INTERMEDIATE, p + "_ffn_in")), INTERMEDIATE, HIDDEN, p + "_ffn_out")
        x = g.layer_norm(g.op("Add", [x, ffn]), p + "_ffn_ln")

    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))

    def int_input(name):
        return helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])

    graph = helper.make_graph(
        g.nodes,
        "minilm_arch_random_fixture",
        [int_input("input_ids"), int_input("attention_mask"), int_input("token_type_ids")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", HIDDEN])],
        g.inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="context-ls gen-minilm-fixture.py",
        doc_string="all-MiniLM-L6-v2 architecture with seeded random weights (seed %d); "
        "for speed and plumbing tests only" % seed,
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def default_tokenizer():
    """The MiniLM tokenizer the repository keeps (testdata/models, Apache-2.0)."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(repo, "testdata", "models", "all-MiniLM-L6-v2", "tokenizer.json")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--tokenizer", default=default_tokenizer(), help="the real MiniLM tokenizer.json to copy")
    ap.add_argument("--seed", type=int, default=20240601)
    args = ap.parse_args()

    if not os.path.isfile(args.tokenizer):
        sys.exit("gen-minilm-fixture: tokenizer %s not found (pass --tokenizer)" % args.tokenizer)
    os.makedirs(args.out_dir, exist_ok=True)

    model = build(args.seed)
    # Write to a temporary file in OUT_DIR and rename, so a partial file never
    # looks like a finished fixture.
    fd, tmp = tempfile.mkstemp(prefix=".model.onnx.", dir=args.out_dir)
    os.close(fd)
    try:
        onnx.save(model, tmp)
        os.replace(tmp, os.path.join(args.out_dir, "model.onnx"))
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    shutil.copyfile(args.tokenizer, os.path.join(args.out_dir, "tokenizer.json"))
    for name in ("model.onnx", "tokenizer.json"):
        p = os.path.join(args.out_dir, name)
        print("%s  %s  %d bytes" % (sha256(p), p, os.path.getsize(p)))


if __name__ == "__main__":
    main()
