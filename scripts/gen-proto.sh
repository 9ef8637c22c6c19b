#!/usr/bin/env bash
# Generates TypeScript types for every proto under proto/ into proto/gen (or $1). Never edit the output by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-proto/gen}"
rm -rf "$out"
mkdir -p "$out"
npx proto-loader-gen-types --keepCase --longs=Number --enums=String --defaults --oneofs --grpcLib=@grpc/grpc-js \
  --importFileExtension=.js -I proto -O "$out" \
  wallet/v1/wallet.proto engine/v1/engine.proto market/v1/market.proto
npx prettier --config .prettierrc.json --log-level warn --write "$out"
