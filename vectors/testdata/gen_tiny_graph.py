#!/usr/bin/python3
"""Write tiny/model.onnx and tiny/tokenizer.json, the fixture of the pooling tests
(run from this directory with Debian's /usr/bin/python3 and python3-onnx).

tokenizer.json is a 12-token BERT WordPiece tokenizer:
  [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 hello=4 world=5 foo=6 bar=7 ##s=8 q=9 :=10 find=11

Inputs input_ids, attention_mask, token_type_ids: int64 [batch, seq].
Outputs, chosen so that pooled results can be computed by hand:
  last_hidden_state  [batch, seq, 3] = (id, 1, token_type)
  sentence_embedding [batch, 3]      = (sum of id*mask, sum of mask, 1)
"""

import json

import onnx
from onnx import TensorProto, helper
import numpy as np
from onnx import numpy_helper


def main():
    c = lambda name, value, dtype: numpy_helper.from_array(np.array(value, dtype=dtype), name)
    inits = [
        c("axis_last", [2], np.int64),
        c("axis_seq", [1], np.int64),
        c("axis_col", [1], np.int64),
        c("zero", 0.0, np.float32),
        c("one", 1.0, np.float32),
    ]
    nodes = [
        helper.make_node("Cast", ["input_ids"], ["x"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["attention_mask"], ["m"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["token_type_ids"], ["t"], to=TensorProto.FLOAT),
        # ones shaped like x: x*0 + 1
        helper.make_node("Mul", ["x", "zero"], ["x0"]),
        helper.make_node("Add", ["x0", "one"], ["ones"]),
        helper.make_node("Unsqueeze", ["x", "axis_last"], ["x3"]),
        helper.make_node("Unsqueeze", ["ones", "axis_last"], ["ones3"]),
        helper.make_node("Unsqueeze", ["t", "axis_last"], ["t3"]),
        helper.make_node("Concat", ["x3", "ones3", "t3"], ["last_hidden_state"], axis=2),
        helper.make_node("Mul", ["x", "m"], ["xm"]),
        helper.make_node("ReduceSum", ["xm", "axis_seq"], ["sx"], keepdims=0),
        helper.make_node("ReduceSum", ["m", "axis_seq"], ["sm"], keepdims=0),
        helper.make_node("Mul", ["sm", "zero"], ["sm0"]),
        helper.make_node("Add", ["sm0", "one"], ["ones_b"]),
        helper.make_node("Unsqueeze", ["sx", "axis_col"], ["sx2"]),
        helper.make_node("Unsqueeze", ["sm", "axis_col"], ["sm2"]),
        helper.make_node("Unsqueeze", ["ones_b", "axis_col"], ["ones2"]),
        helper.make_node("Concat", ["sx2", "sm2", "ones2"], ["sentence_embedding"], axis=1),
    ]
    ints = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
            for n in ("input_ids", "attention_mask", "token_type_ids")]
    outs = [
        helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", 3]),
        helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", 3]),
    ]
    graph = helper.make_graph(nodes, "tiny_pooling_fixture", ints, outs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="context-ls vectors/testdata/gen_tiny_graph.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, "tiny/model.onnx")
    write_tokenizer("tiny/tokenizer.json")


VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world", "foo", "bar", "##s", "q", ":", "find"]


def write_tokenizer(path):
    special = lambda t: {"SpecialToken": {"id": t, "type_id": 0}}
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for i, t in enumerate(VOCAB[:4])
        ],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [special("[CLS]"), {"Sequence": {"id": "A", "type_id": 0}}, special("[SEP]")],
            "pair": [special("[CLS]"), {"Sequence": {"id": "A", "type_id": 0}}, special("[SEP]"),
                     {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]},
            },
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(VOCAB)}},
    }
    with open(path, "w") as f:
        json.dump(tok, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
