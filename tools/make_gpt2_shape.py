"""Write the shipped example of a GPT-2-small-sized layer:
resources/scenarios/gpt2-small-shape.json and its sidecar gpt2-small-shape.npz.

The weights are random (seed 0, GPT-2's initialisation: matrices N(0, 0.02²), biases 0,
LayerNorm gains 1), not the trained GPT-2; the shapes are one GPT-2-small layer's: 64 tokens,
d_model 768, 12 heads × 64, d_ff 3,072, pre-LN, GELU (tanh), causal attention. Every number is
rounded to float16 and the sidecar stores float16 (about 14 MB instead of 57 MB of float64;
the rounded numbers are stored exactly, so what loads is what was generated). The output is
byte-for-byte the same on every run.

    python tools/make_gpt2_shape.py            # (re)write the two files
    python tools/make_gpt2_shape.py --check    # exit 1 if the shipped files differ from what would be written
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.formats.generate import as_float16, preset  # noqa: E402
from core.formats.scenario import Scenario, save_scenario  # noqa: E402

NAME = "gpt2-small-shape.json"
TITLE = {
    "zh": "GPT-2 small 一层的形状，随机权重（种子 0，float16 存储，并非训练过的 GPT-2）：64 个词元，"
          "d_model 768，12 个头 × 64，d_ff 3072",
    "en": "GPT-2 small's shapes with random weights (seed 0, stored as float16; not the trained GPT-2): "
          "one layer, 64 tokens, d_model 768, 12 heads × 64, d_ff 3,072",
}


def example() -> Scenario:
    scenario = as_float16(preset("gpt2-small", seed=0))
    return Scenario(scenario.config, scenario.tokens, scenario.inputs, scenario.weights, None, TITLE)


def write(folder: Path) -> None:
    save_scenario(example(), folder / NAME, sidecar=True, dtype="float16")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the shipped files instead of writing")
    args = parser.parse_args()
    shipped = ROOT / "resources" / "scenarios"
    if not args.check:
        write(shipped)
        print(f"wrote {shipped / NAME} and {shipped / NAME.replace('.json', '.npz')}")
        return 0
    with tempfile.TemporaryDirectory() as folder:
        write(Path(folder))
        for name in (NAME, NAME.replace(".json", ".npz")):
            if (Path(folder) / name).read_bytes() != (shipped / name).read_bytes():
                print(f"{shipped / name} differs from what tools/make_gpt2_shape.py writes", file=sys.stderr)
                return 1
    print("the shipped files are what tools/make_gpt2_shape.py writes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
