"""Turn the npm package `chinese-poetry` into the small model's training corpus.

Re-runnable from the package file alone (nothing is downloaded here):

    npm pack chinese-poetry@2.0.1                 # -> chinese-poetry-2.0.1.tgz (MIT licence)
    python tools/prepare_corpus.py chinese-poetry-2.0.1.tgz --out /work/train-data/corpus

What goes in (all traditional characters, like the seed's 《三國志演義》; the package's
simplified-script works — 宋词, 论语, 诗经, 元曲 — are left out so one character has one
form in the vocabulary):

- 全唐诗: every `dist/quantangshi/poet.tang.*.json` (57,607 poems; the `error/` folder
  and the 宋诗 files `poet.song.*` are not used);
- 四书: `dist/sishuwujing/daxue.json`, `zhongyong.json`, `mengzi.json` (each paragraph
  is one document).

One document per poem: its title, a newline, its lines joined without separators, a
newline — "雪中聞李儋過門不訪聊以寄贈\\n度門能不訪，冒雪屢西東。…\\n". A 四书 paragraph
is "大學\\n大學之道，在明明德，…\\n" (the chapter name as its title). Documents are
joined in file order (files sorted by name, numerically for the poem volumes).

Validation split: a document goes to validation when the first two bytes of the
SHA-256 of its text, read as a big-endian number, are < 656 (656/65536 ≈ 1 %). The
split is by whole document and scattered over every volume and poet — not the tail of
one work — and it does not change when files are reordered.

Vocabulary: the 2,047 most frequent characters of the TRAINING split (ties broken by
code point, smaller first), in that order, after id 0 = the unknown token, written
as U+FFFD "�". 2,048 entries in all. Everything else maps to id 0.

Outputs in --out: train.txt, val.txt, vocab.txt (one entry per line; the newline
character is written as the two characters "\\n"), meta.json (counts, hashes).
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import io
import json
import re
import sys
import tarfile
from pathlib import Path

VOCAB_SIZE = 2048
UNK = "\ufffd"
VAL_THRESHOLD = 656          # of 65536: ~1 % of documents
TANG = re.compile(r"^package/dist/quantangshi/poet\.tang\.(\d+)\.json$")
SISHU = ("daxue", "zhongyong", "mengzi")


def _documents(tgz: Path) -> list[tuple[str, str]]:
    """(source member, document text) in the documented order."""
    with tarfile.open(tgz, "r:gz") as tar:
        members = {m.name: m for m in tar.getmembers() if m.isfile()}

        def load(name: str):
            return json.load(io.TextIOWrapper(tar.extractfile(members[name]), encoding="utf-8"))

        tang = sorted((int(TANG.match(n).group(1)), n) for n in members if TANG.match(n))
        if not tang:
            raise SystemExit(f"{tgz}: no dist/quantangshi/poet.tang.*.json inside; is this chinese-poetry?")
        docs: list[tuple[str, str]] = []
        for _, name in tang:
            for poem in load(name):
                body = "".join(p for p in poem.get("paragraphs") or [] if isinstance(p, str))
                if body.strip():
                    docs.append((name, f"{poem.get('title', '').strip()}\n{body}\n"))
        for work in SISHU:
            name = f"package/dist/sishuwujing/{work}.json"
            data = load(name)
            for chapter in data if isinstance(data, list) else [data]:
                title = chapter.get("chapter", "").strip()
                for para in chapter.get("paragraphs") or []:
                    if isinstance(para, str) and para.strip():
                        docs.append((name, f"{title}\n{para.strip()}\n"))
        return docs


def is_validation(doc: str) -> bool:
    digest = hashlib.sha256(doc.encode("utf-8")).digest()
    return int.from_bytes(digest[:2], "big") < VAL_THRESHOLD


def build_vocab(train: str, size: int = VOCAB_SIZE) -> list[str]:
    counts = collections.Counter(train)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], ord(kv[0])))
    return [UNK] + [ch for ch, _ in ranked[: size - 1]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("package", type=Path, help="chinese-poetry-2.0.1.tgz from `npm pack chinese-poetry`")
    ap.add_argument("--out", type=Path, default=Path("/work/train-data/corpus"))
    args = ap.parse_args(argv)

    docs = _documents(args.package)
    train_docs = [d for _, d in docs if not is_validation(d)]
    val_docs = [d for _, d in docs if is_validation(d)]
    train, val = "".join(train_docs), "".join(val_docs)
    vocab = build_vocab(train)
    known = set(vocab[1:])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "train.txt").write_text(train, encoding="utf-8")
    (args.out / "val.txt").write_text(val, encoding="utf-8")
    (args.out / "vocab.txt").write_text(
        "".join(("\\n" if ch == "\n" else ch) + "\n" for ch in vocab), encoding="utf-8")
    meta = {
        "package": args.package.name,
        "package_sha256": hashlib.sha256(args.package.read_bytes()).hexdigest(),
        "documents": len(docs), "train_documents": len(train_docs), "val_documents": len(val_docs),
        "train_chars": len(train), "val_chars": len(val),
        "distinct_train_chars": len(set(train)),
        "vocab_size": len(vocab), "unk_id": 0,
        "train_unk_rate": sum(ch not in known for ch in train) / len(train),
        "val_unk_rate": sum(ch not in known for ch in val) / len(val),
        "sources": sorted({s.removeprefix("package/") for s, _ in docs}),
    }
    (args.out / "meta.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")
    print(json.dumps({k: v for k, v in meta.items() if k != "sources"}, ensure_ascii=False), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
