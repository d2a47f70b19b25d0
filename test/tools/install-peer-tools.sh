#!/usr/bin/env bash
# Installs the peer tools that tests and benchmarks use as oracles (never committed): dotnet-gcdump,
# dotnet-trace and dotnet-dump from NuGet into test/.peer-tools/. Tests that need one skip visibly
# when it is missing (test/helpers/peer-tools.ts). Safe to run again: installed tools are kept.
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=test/.peer-tools
version=10.0.750501
command -v dotnet >/dev/null || { echo "peer tools: no dotnet, skipped"; exit 0; }
mkdir -p "$dir"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
for tool in dotnet-gcdump dotnet-trace dotnet-dump; do
  if [ -x "$dir/$tool" ]; then echo "peer tools: $tool present"; continue; fi
  dotnet tool install --tool-path "$dir" "$tool" --version "$version" >/dev/null 2>&1 \
    && echo "peer tools: $tool $version installed" \
    || echo "peer tools: could not install $tool $version (tests that need it will skip)"
done
exit 0
