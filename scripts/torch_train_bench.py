#!/usr/bin/env python3
"""Training throughput of akushu's CNN in PyTorch, to set beside burn's figure.

What it measures: examples per second of the full training step (forward, masked softmax
loss, backward, Adam update) of exactly the network in src/net/inference/cnn.rs, on one device.

    python3 scripts/torch_train_bench.py                       # 5x32, batch 1024, cuda if any
    python3 scripts/torch_train_bench.py --blocks 3 --batch-size 256 --amp --compile
    python3 scripts/torch_train_bench.py --device cpu --steps 5 --warmup 1 --batch-size 64

Why synthetic data: burn's `examples_per_second` (train_log.csv) leaves out disk reading and
encodes batches ahead on another thread, so it is essentially the speed of the training
step. Here random 0/1 input planes, random legal masks and random played points (always
legal) are made once on the device, so only the step is timed. `--from-host` copies each
batch from CPU memory instead, as burn's `Tensor::from_data` does every step.

Matched to akushu (src/net/inference/cnn.rs, encode.rs, train.rs, model.rs):
  * input [batch, 14, 9, 9] (CNN_PLANES = 14), stem 3x3 conv 14->C (padding 1, bias), ReLU;
  * each block: x = relu(x + conv2(relu(conv1(x)))), both 3x3 C->C with bias, no norm layer;
  * head 1x1 conv C->1 with bias, reshaped to [batch, 81] logits;
  * loss: logits.masked_fill(illegal, -1e9), log_softmax over 81, minus the played
    point's log-probability, mean over the batch (masked_softmax_loss);
  * Adam as `AdamConfig::new()` in burn-optim 0.22.1: beta1 0.9, beta2 0.999, eps 1e-5,
    no weight decay, no AMSGrad, no gradient clipping; lr 1e-3 (TrainConfig default,
    constant schedule). burn's update m_hat / (sqrt(v_hat) + eps) equals PyTorch's Adam.
  * akushu reads the loss back every step (`into_scalar`, a device sync) to check it is
    finite; so does this script unless `--no-loss-sync`.
Not matched: weight init (timing does not depend on it); PyTorch lets cuDNN use TF32 for
convolutions by default (`--no-tf32` turns it off) and cudnn.benchmark is on here.
"""
import argparse
import json
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

PLANES, NN = 14, 81  # CNN_PLANES (src/net/inference/encode.rs), points of the 9x9 board


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1)

    def forward(self, x):
        return F.relu(x + self.conv2(F.relu(self.conv1(x))))


class Cnn(nn.Module):
    def __init__(self, blocks, channels):
        super().__init__()
        self.stem = nn.Conv2d(PLANES, channels, 3, padding=1)
        self.blocks = nn.ModuleList(ResBlock(channels) for _ in range(blocks))
        self.head = nn.Conv2d(channels, 1, 1)

    def forward(self, x):  # [b, 14, 9, 9] -> [b, 81]
        x = F.relu(self.stem(x))
        for b in self.blocks:
            x = b(x)
        return self.head(x).reshape(x.shape[0], NN)


def masked_softmax_loss(logits, illegal, played):
    """Cross-entropy of `played` [b, 1] under a softmax over the legal points (f32)."""
    logp = F.log_softmax(logits.float().masked_fill(illegal, -1.0e9), dim=1)
    return -logp.gather(1, played).mean()


def expected_params(blocks, c):
    # Every conv in cnn.rs has a bias (burn's Conv2dConfig default), weight [cout, cin, k, k]:
    #   stem  14*c*9 + c
    #   block 2 * (c*c*9 + c)       (conv1 and conv2), times `blocks`
    #   head  c*1*1 + 1
    # 5x32: 4064 + 5*18496 + 33 = 96577.
    return PLANES * c * 9 + c + blocks * 2 * (c * c * 9 + c) + c + 1


def synthetic_batches(n, batch, device, gen):
    """`n` random batches (input planes, illegal mask, played point)."""
    out = []
    for _ in range(n):
        x = (torch.rand(batch, PLANES, 9, 9, generator=gen) < 0.3).float()
        legal = torch.rand(batch, NN, generator=gen) < 0.6
        played = torch.randint(0, NN, (batch, 1), generator=gen)
        legal.scatter_(1, played, True)  # the played point is always legal
        x[:, 12] = legal.view(batch, 9, 9).float()  # plane 12 = legal for the side to move
        out.append(tuple(t.to(device) for t in (x, ~legal, played)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--blocks", type=int, default=5)
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--batch-size", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=200, help="timed steps")
    ap.add_argument("--warmup", type=int, default=20, help="untimed steps first")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0 = leave)")
    ap.add_argument("--compile", action="store_true", help="torch.compile the step's forward")
    ap.add_argument("--amp", action="store_true", help="bf16 autocast (loss in f32)")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--no-loss-sync", action="store_true", help="don't read the loss each step")
    ap.add_argument("--no-tf32", action="store_true", help="forbid TF32 in cuDNN convolutions")
    ap.add_argument("--from-host", action="store_true", help="copy each batch from CPU memory")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--json", metavar="PATH", help="also write the result here")
    args = ap.parse_args()

    if args.threads > 0:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    cuda = device.type == "cuda"
    if cuda:
        torch.backends.cudnn.benchmark = True
        torch.backends.cudnn.allow_tf32 = not args.no_tf32
        name = torch.cuda.get_device_name(device)
    else:
        name = f"cpu, {torch.get_num_threads()} threads"
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)

    model = Cnn(args.blocks, args.channels).to(device)
    params = sum(p.numel() for p in model.parameters())
    want = expected_params(args.blocks, args.channels)
    print(f"params: {params} (from cnn.rs formula: {want}){'' if params == want else '  MISMATCH'}")
    # burn-optim 0.22.1 AdamConfig defaults (see the docstring).
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.999), eps=1e-5,
                           weight_decay=0.0)

    def loss_of(x, illegal, played):
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.amp):
            return masked_softmax_loss(model(x), illegal, played)

    data_dev = "cpu" if args.from_host else device
    batches = synthetic_batches(4, args.batch_size, data_dev, gen)
    if args.from_host and cuda:
        batches = [tuple(t.pin_memory() for t in b) for b in batches]

    def step(fn, i):
        x, illegal, played = (t.to(device, non_blocking=True) for t in batches[i % len(batches)])
        opt.zero_grad(set_to_none=True)
        loss = fn(x, illegal, played)
        loss.backward()
        opt.step()
        return loss.item() if not args.no_loss_sync else loss.detach()

    fn, compiled = loss_of, False
    if args.compile:
        try:
            fn = torch.compile(loss_of)
            step(fn, 0)  # compilation happens on the first call
            compiled = True
        except Exception as e:  # noqa: BLE001 - any backend failure falls back to eager
            print(f"note: torch.compile failed ({type(e).__name__}: {str(e)[:200]}); eager")
            torch._dynamo.reset()
            fn = loss_of
    for i in range(args.warmup):
        step(fn, i)
    if cuda:
        torch.cuda.synchronize(device)
    t0 = time.perf_counter()
    losses = [step(fn, i) for i in range(args.steps)]
    if cuda:
        torch.cuda.synchronize(device)
    seconds = time.perf_counter() - t0
    first, last = float(losses[0]), float(losses[-1])
    rate = args.steps * args.batch_size / seconds

    print("data: synthetic, made once " + ("in host memory, copied to the device every step"
          if args.from_host else "on the device") + " (disk and encoding not timed, as in burn)")
    flags = "".join([" amp-bf16" if args.amp else "", " compiled" if compiled else "",
                     " no-tf32" if args.no_tf32 and cuda else ""])
    print(f"torch cnn {args.blocks}x{args.channels} batch {args.batch_size} on "
          f"{device.type} ({name}){flags}: {rate:.0f} examples/s "
          f"({args.steps} steps in {seconds:.3f} s, loss {first:.2f} -> {last:.2f})")
    if args.json:
        result = {"framework": "pytorch", "torch": torch.__version__, "device": name,
                  "blocks": args.blocks, "channels": args.channels,
                  "batch_size": args.batch_size, "steps": args.steps,
                  "examples_per_second": rate, "seconds": seconds, "params": params,
                  "amp": args.amp, "compile": compiled, "tf32": cuda and not args.no_tf32,
                  "loss_sync": not args.no_loss_sync, "from_host": args.from_host,
                  "loss_first": first, "loss_last": last}
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
