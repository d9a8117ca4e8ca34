set -x
cd /work/main
for net in b6c96 b10c384; do
  /usr/bin/time -v ./target/release/akushu dataset label /tmp/ds-cost --splits test --limit 1024 --quiet --teacher "/root/.cache/akushu/katago/bin/katago analysis -model /root/.cache/akushu/katago/$net.bin.gz -config /root/.cache/akushu/katago/analysis.cfg" --out /tmp/cost/$net > /tmp/cost/$net.log 2>&1
done
