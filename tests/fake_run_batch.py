"""A stand-in for ``vllm run-batch -i IN -o OUT --model M``: answers each line of IN, writes OUT as vLLM does.

Each output line is ``{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}``,
the shape vLLM (and OpenAI) give; the answers are the fake model's (:mod:`fake_model`).
Lines are answered in reverse order: a batch keeps none.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from fake_model import completion


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-i", "--input-file", required=True)
    parser.add_argument("-o", "--output-file", required=True)
    parser.add_argument("--model", required=True)
    args = parser.parse_args()
    lines = [json.loads(line) for line in Path(args.input_file).read_text(encoding="utf-8").splitlines() if line]
    out = []
    for number, line in enumerate(reversed(lines), start=1):
        if line.get("url") != "/v1/chat/completions" or line.get("method") != "POST":
            raise SystemExit(f"line {line.get('custom_id')}: not a POST to /v1/chat/completions")
        body = {**line["body"], "model": args.model}
        response = {"status_code": 200, "request_id": f"vllm-batch-{number}", "body": completion(body, number=number)}
        out.append({"id": f"vllm-{number}", "custom_id": line["custom_id"], "response": response, "error": None})
    Path(args.output_file).write_text("".join(json.dumps(o) + "\n" for o in out), encoding="utf-8")


if __name__ == "__main__":
    main()
