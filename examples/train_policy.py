"""Train a kseri policy with PPO (PyTorch, CPU) against built-in bots, then evaluate it on the
duplicate-deal bench.

The learner plays a random seat of ``kseri.rl.gym_env.KseriEnv`` against the chosen bot level;
its network is ``kseri.agents.learned.PolicyNetwork`` on the shared encoding (a summary of
the whole vector, and a scorer shared by all actions on each card face's own features),
exported as numpy weights that ``kseri.agents.learned.LearnedAgent`` plays without PyTorch.
The evaluation plays the bench's duplicate deals (``kseri.bench.duplicate``: every deal once
per seat rotation) and prints the mean point difference per round with a 95% confidence
interval.

    pip install 'kseri[rl]' 'torch==2.13.0+cpu'   # the CPU build
    python examples/train_policy.py --minutes 60 --out policy.npz            # a longer run
    python examples/train_policy.py --minutes 0.2 --eval-deals 4 --out /tmp/p.npz   # a smoke run
    python examples/train_policy.py --init src/kseri/agents/learned.npz --opponent random --out br.npz
                                        # the shipped policy, trained on against another bot

It prints one line per evaluation: steps, steps/s, and the difference against each level.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from kseri.agents import make_agent
from kseri.agents.encoding import ACTION_FIELDS, ACTIONS, FIELDS, MAX_SEATS, OFFSETS, VECTOR_SIZE
from kseri.agents.learned import LearnedAgent, PolicyNetwork
from kseri.bench.duplicate import bench_deal, duplicate_round
from kseri.bench.stats import mean_interval
from kseri.rl.gym_env import KseriEnv, as_rules

FIELDS_BY_NAME = {field.name: field for field in FIELDS}
REWARD_SCALE = 0.05
"""Round point differences are tens of points: scaled to about one for learning."""
_CAPTURED = slice(OFFSETS["captured_points"], OFFSETS["captured_points"] + MAX_SEATS)
_MARKS = slice(OFFSETS["marks_points"], OFFSETS["marks_points"] + MAX_SEATS)
_SIDES = OFFSETS["sides"]


def potential(vector: np.ndarray) -> float:
    """Points the learner's side has banked this round less the mean of the other sides', in
    units of the vector's scale: the shaping potential (the round's reward redistributed over
    the plays; with no discount the return is unchanged)."""
    sides = round(float(vector[_SIDES]) * FIELDS_BY_NAME["sides"].scale)
    banked = (vector[_CAPTURED] * FIELDS_BY_NAME["captured_points"].scale
              + vector[_MARKS] * FIELDS_BY_NAME["marks_points"].scale)[:sides]
    return float(banked[0] - banked[1:].mean())


ACTION_COLUMNS = torch.as_tensor([[OFFSETS[name] + face for name in ACTION_FIELDS]
                                  for face in range(ACTIONS)])
"""Per action, where its own features are in the vector."""


class ActorCritic(nn.Module):
    """The policy of ``kseri.agents.learned.PolicyNetwork`` (the exported part) and a value head."""

    def __init__(self, hidden: int, scorer: int = 32) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(VECTOR_SIZE, hidden), nn.Tanh(),
                                  nn.Linear(hidden, hidden), nn.Tanh())
        self.policy = nn.Linear(hidden, ACTIONS)
        self.features = nn.Linear(len(ACTION_FIELDS), scorer)
        self.summary = nn.Linear(hidden, scorer, bias=False)
        self.score = nn.Linear(scorer, 1, bias=False)
        self.value = nn.Sequential(nn.Linear(VECTOR_SIZE, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(x)
        per_action = torch.tanh(self.features(x[:, ACTION_COLUMNS]) + self.summary(h)[:, None, :])
        logits = self.policy(h) + self.score(per_action).squeeze(-1)
        return logits.masked_fill(mask == 0, -1e9), self.value(x).squeeze(-1)

    def load_policy(self, network: PolicyNetwork) -> None:
        """Start from a trained policy's weights (the value head stays new)."""
        if len(network.body) != 2 or network.body[0][0].shape[1] != self.body[0].out_features:
            raise SystemExit(f"--init: the policy must have two layers of {self.body[0].out_features} "
                             "(--hidden)")
        named = {"w0": network.body[0][0], "b0": network.body[0][1], "w1": network.body[1][0],
                 "b1": network.body[1][1]} | network.head
        with torch.no_grad():
            for layer, weight, bias in ((self.body[0], "w0", "b0"), (self.body[2], "w1", "b1"),
                                        (self.policy, "wp", "bp"), (self.features, "ua", "ub")):
                layer.weight.copy_(torch.as_tensor(named[weight].T))
                layer.bias.copy_(torch.as_tensor(named[bias]))
            self.summary.weight.copy_(torch.as_tensor(named["uh"].T))
            self.score.weight.copy_(torch.as_tensor(named["uo"][None, :]))

    def export(self) -> PolicyNetwork:
        """The policy as numpy weights."""
        def array(tensor: torch.Tensor) -> np.ndarray:
            return tensor.detach().numpy().copy()

        return PolicyNetwork({
            "w0": array(self.body[0].weight.T), "b0": array(self.body[0].bias),
            "w1": array(self.body[2].weight.T), "b1": array(self.body[2].bias),
            "wp": array(self.policy.weight.T), "bp": array(self.policy.bias),
            "ua": array(self.features.weight.T), "ub": array(self.features.bias),
            "uh": array(self.summary.weight.T), "uo": array(self.score.weight[0]),
        })


def evaluate(network: PolicyNetwork, rules_spec: str, levels: list[str],
             deals: int) -> dict[str, tuple[float, float]]:
    """Mean point difference per round (and the 95% half-width) against each level."""
    rules = as_rules(rules_spec)
    agent = LearnedAgent(network=network)
    results = {}
    for level in levels:
        opponent = make_agent(level, seed=1)
        diffs = [duplicate_round(rules, bench_deal(rules, "rl-eval", index), [agent, opponent])
                 for index in range(deals)]
        interval = mean_interval(diffs)
        low, high = interval.low, interval.high
        half = (high - low) / 2 if low is not None and high is not None else np.nan
        results[level] = (interval.estimate, half)
    return results


def train(args: argparse.Namespace) -> PolicyNetwork:
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    envs = [KseriEnv(args.rules, opponents=args.opponent, seat=None) for _ in range(args.envs)]
    observations = [env.reset(seed=args.seed * 1000 + i)[0] for i, env in enumerate(envs)]
    model = ActorCritic(args.hidden)
    if args.init is not None:
        model.load_policy(PolicyNetwork.load(args.init))
    optimiser = torch.optim.Adam(model.parameters(), lr=args.lr)
    start = time.perf_counter()
    deadline = start + args.minutes * 60
    steps = 0
    update = 0
    next_eval = args.eval_every
    while time.perf_counter() < deadline:
        keys = ("obs", "mask", "action", "logp", "value", "reward", "done")
        batch: dict[str, list[np.ndarray]] = {key: [] for key in keys}
        for _ in range(args.horizon):
            obs = torch.as_tensor(np.stack([o["observation"] for o in observations]))
            mask = torch.as_tensor(np.stack([o["action_mask"] for o in observations]))
            with torch.no_grad():
                logits, value = model(obs, mask)
                dist = torch.distributions.Categorical(logits=logits)
                action = dist.sample()
            rewards, dones = [], []
            for i, env in enumerate(envs):
                before = potential(observations[i]["observation"])
                observation, reward, terminated, truncated, _ = env.step(int(action[i]))
                after = 0.0 if terminated or truncated else potential(observation["observation"])
                if terminated or truncated:
                    observation, _ = env.reset()
                observations[i] = observation
                rewards.append((reward + after - before) * REWARD_SCALE)
                dones.append(float(terminated or truncated))
            batch["obs"].append(obs.numpy())
            batch["mask"].append(mask.numpy())
            batch["action"].append(action.numpy())
            batch["logp"].append(dist.log_prob(action).numpy())
            batch["value"].append(value.numpy())
            batch["reward"].append(np.asarray(rewards, np.float32))
            batch["done"].append(np.asarray(dones, np.float32))
        steps += args.horizon * args.envs
        with torch.no_grad():
            obs = torch.as_tensor(np.stack([o["observation"] for o in observations]))
            mask = torch.as_tensor(np.stack([o["action_mask"] for o in observations]))
            last_value = model(obs, mask)[1].numpy()
        values = np.stack(batch["value"])
        rewards_t = np.stack(batch["reward"])
        dones_t = np.stack(batch["done"])
        advantages = np.zeros_like(rewards_t)
        gae = np.zeros(args.envs, np.float32)
        for t in reversed(range(args.horizon)):
            next_value = last_value if t == args.horizon - 1 else values[t + 1]
            delta = rewards_t[t] + next_value * (1 - dones_t[t]) - values[t]
            gae = delta + args.lam * (1 - dones_t[t]) * gae
            advantages[t] = gae
        returns = advantages + values
        flat = {k: torch.as_tensor(np.concatenate(v)) for k, v in batch.items()}
        flat_adv = torch.as_tensor(advantages.reshape(-1))
        flat_ret = torch.as_tensor(returns.reshape(-1))
        size = flat_adv.shape[0]
        for _ in range(args.epochs):
            order = torch.randperm(size)
            for first in range(0, size, args.minibatch):
                idx = order[first:first + args.minibatch]
                logits, value = model(flat["obs"][idx], flat["mask"][idx])
                dist = torch.distributions.Categorical(logits=logits)
                logp = dist.log_prob(flat["action"][idx])
                adv = flat_adv[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                ratio = torch.exp(logp - flat["logp"][idx])
                policy_loss = -torch.min(ratio * adv, ratio.clamp(1 - args.clip, 1 + args.clip) * adv).mean()
                value_loss = ((value - flat_ret[idx]) ** 2).mean()
                loss = policy_loss + 0.5 * value_loss - args.entropy * dist.entropy().mean()
                optimiser.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 0.5)
                optimiser.step()
        update += 1
        elapsed = time.perf_counter() - start
        if elapsed >= next_eval * 60 or time.perf_counter() >= deadline:
            next_eval += args.eval_every
            network = model.export()
            network.save(args.out)
            scores = evaluate(network, args.rules, args.eval_levels, args.eval_deals)
            text = "  ".join(f"vs {level} {mean:+.2f} ±{half:.2f}" for level, (mean, half) in scores.items())
            print(f"update {update} steps {steps} ({steps / elapsed:.0f}/s) {elapsed / 60:.1f} min  {text}",
                  flush=True)
    return model.export()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", default="greek", help="preset or spec (default greek)")
    parser.add_argument("--opponent", default="greedy", help="the bot level trained against")
    parser.add_argument("--minutes", type=float, default=60.0, help="training time")
    parser.add_argument("--envs", type=int, default=32)
    parser.add_argument("--horizon", type=int, default=64, help="steps per environment per update")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--lam", type=float, default=0.95)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--entropy", type=float, default=0.01)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatch", type=int, default=512)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eval-every", type=float, default=10.0, help="minutes between evaluations")
    parser.add_argument("--eval-deals", type=int, default=200, help="duplicate deals per evaluation")
    parser.add_argument("--eval-levels", nargs="+", default=["greedy", "expert"])
    parser.add_argument("--init", type=Path, help="start from this policy's weights (.npz)")
    parser.add_argument("--out", type=Path, default=Path("policy.npz"), help="where the numpy weights go")
    train(parser.parse_args())


if __name__ == "__main__":
    main()
