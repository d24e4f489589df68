#!/usr/bin/python3
"""Generates the tiny BERT-shaped ONNX model used by the TransformersEmbedder tests.

Run with Debian's python3-onnx (apt-get install -y python3-onnx):

    /usr/bin/python3 packages/embeddings/scripts/make-tiny-bert.py

It writes test/fixtures/tiny-bert/ (committed, so tests need no python):
  config.json, tokenizer.json, tokenizer_config.json, special_tokens_map.json,
  onnx/model.onnx, onnx/model_quantized.onnx (the same graph: transformers.js loads the
  quantized name by default), and weights.json (the tables, so tests can recompute the
  expected vectors independently of ONNX Runtime).

The graph has BERT's interface: inputs input_ids, attention_mask, token_type_ids (int64,
[batch, seq]) and output last_hidden_state (float, [batch, seq, hidden]):
    last_hidden_state = (word_embeddings[input_ids] + type_embeddings[token_type_ids])
                        * attention_mask[..., None]
"""
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HIDDEN = 8
VOCAB = [
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
    "the", "user", "likes", "coffee", "tea", "cat", "dog", "sat", "on", "mat",
    "memory", "run", "##s", "##ning", ".", ",", "!", "a", "cafe",
]

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "fixtures", "tiny-bert")


def tables():
    # Exactly representable values (multiples of 1/16) keep float32 and JSON identical.
    rng = np.random.default_rng(20240607)
    word = np.round(rng.uniform(-1, 1, size=(len(VOCAB), HIDDEN)) * 16) / 16
    types = np.round(rng.uniform(-0.25, 0.25, size=(2, HIDDEN)) * 16) / 16
    return word.astype(np.float32), types.astype(np.float32)


def build_model(word, types):
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    output = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", HIDDEN])
    initializers = [
        numpy_helper.from_array(word, "word_embeddings"),
        numpy_helper.from_array(types, "token_type_embeddings"),
        numpy_helper.from_array(np.array([2], dtype=np.int64), "unsqueeze_axes"),
    ]
    nodes = [
        helper.make_node("Gather", ["word_embeddings", "input_ids"], ["word_states"], axis=0),
        helper.make_node("Gather", ["token_type_embeddings", "token_type_ids"], ["type_states"], axis=0),
        helper.make_node("Add", ["word_states", "type_states"], ["states"]),
        helper.make_node("Cast", ["attention_mask"], ["mask_float"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask_float", "unsqueeze_axes"], ["mask_3d"]),
        helper.make_node("Mul", ["states", "mask_3d"], ["last_hidden_state"]),
    ]
    graph = helper.make_graph(nodes, "tiny_bert", inputs, [output], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="hermes-memory")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def tokenizer_json():
    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for i, t in enumerate(special)
        ],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]},
            },
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(VOCAB)}},
    }


def main():
    word, types = tables()
    os.makedirs(os.path.join(OUT, "onnx"), exist_ok=True)
    data = build_model(word, types).SerializeToString()
    for name in ("model.onnx", "model_quantized.onnx"):
        with open(os.path.join(OUT, "onnx", name), "wb") as f:
            f.write(data)
    files = {
        "config.json": {"model_type": "bert", "architectures": ["BertModel"], "hidden_size": HIDDEN,
                        "vocab_size": len(VOCAB), "type_vocab_size": 2, "max_position_embeddings": 64},
        "tokenizer.json": tokenizer_json(),
        "tokenizer_config.json": {"tokenizer_class": "BertTokenizer", "do_lower_case": True,
                                  "model_max_length": 64, "cls_token": "[CLS]", "sep_token": "[SEP]",
                                  "pad_token": "[PAD]", "unk_token": "[UNK]", "mask_token": "[MASK]",
                                  "strip_accents": None, "tokenize_chinese_chars": True},
        "special_tokens_map.json": {"cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]",
                                    "unk_token": "[UNK]", "mask_token": "[MASK]"},
        "weights.json": {"vocab": VOCAB, "word_embeddings": word.tolist(), "token_type_embeddings": types.tolist()},
    }
    for name, content in files.items():
        with open(os.path.join(OUT, name), "w") as f:
            json.dump(content, f, indent=1)
            f.write("\n")
    print(f"wrote {OUT} ({len(data)} byte model)")


if __name__ == "__main__":
    main()
