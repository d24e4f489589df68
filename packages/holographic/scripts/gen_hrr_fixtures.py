#!/usr/bin/python3
"""Independent HRR reference vectors from the spec's definition (hashlib/struct/math only, no numpy).

Writes test/fixtures/hrr-vectors.json. Atoms are exact (uint16 values and float64 phases as hex);
derived vectors (bind, bundle, encode_text, encode_fact) use math.cos/sin/atan2 and are compared
with a small tolerance, because libm implementations may differ in the last ulp.
Run: /usr/bin/python3 packages/holographic/scripts/gen_hrr_fixtures.py
"""
import hashlib, json, math, os, struct

TWO_PI = 2.0 * math.pi

def atom(word, dim):
    vals = []
    for i in range(math.ceil(dim / 16)):
        vals.extend(struct.unpack("<16H", hashlib.sha256(f"{word}:{i}".encode()).digest()))
    return [v * (TWO_PI / 65536.0) for v in vals[:dim]]

def bind(a, b): return [(x + y) % TWO_PI for x, y in zip(a, b)]
def unbind(a, b): return [(x - y) % TWO_PI for x, y in zip(a, b)]
def bundle(*vs):
    dim = len(vs[0])
    re_ = [sum(math.cos(v[i]) for v in vs) for i in range(dim)]
    im_ = [sum(math.sin(v[i]) for v in vs) for i in range(dim)]
    return [math.atan2(im_[i], re_[i]) % TWO_PI for i in range(dim)]
def sim(a, b): return sum(math.cos(x - y) for x, y in zip(a, b)) / len(a)
def tokens(text): return [t for t in (w.strip(".,!?;:\"'()[]{}") for w in text.lower().split()) if t]
def encode_text(text, dim):
    toks = tokens(text)
    return bundle(*[atom(t, dim) for t in toks]) if toks else atom("__hrr_empty__", dim)
def encode_fact(content, entities, dim):
    rc, re_ = atom("__hrr_role_content__", dim), atom("__hrr_role_entity__", dim)
    return bundle(bind(encode_text(content, dim), rc), *[bind(atom(e.lower(), dim), re_) for e in entities])
def hexes(v): return [struct.pack("<d", x).hex() for x in v]

out = {"atoms": [], "derived": {}}
for word, dim in [("hello", 1024), ("hello", 16), ("__hrr_empty__", 64), ("Jane Doe", 100), ("供应商", 32)]:
    out["atoms"].append({"word": word, "dim": dim, "float64_hex": hexes(atom(word, dim))})
dim = 256
a, b = atom("alpha", dim), atom("beta", dim)
out["derived"] = {
    "dim": dim,
    "bind_alpha_beta": bind(a, b),
    "unbind_bind_alpha": unbind(bind(a, b), a),
    "bundle_alpha_beta_gamma": bundle(a, b, atom("gamma", dim)),
    "similarity_alpha_beta": sim(a, b),
    "encode_text": encode_text("The deployment, rollback (failed) twice!", dim),
    "encode_fact": encode_fact("Jane Doe works at Hermes Agent", ["Jane Doe", "Hermes Agent"], dim),
    "legacy_blob_hex": struct.pack("<%dd" % 8, *atom("blob", 8)).hex(),
    "f32_blob_hex": (b"HRR1" + struct.pack("<%df" % 8, *atom("blob", 8))).hex(),
}
path = os.path.join(os.path.dirname(__file__), "..", "test", "fixtures", "hrr-vectors.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
print("wrote", os.path.normpath(path))
