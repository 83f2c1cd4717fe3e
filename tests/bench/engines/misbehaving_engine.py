"""A small engine for the protocol tests (standard library only, so it starts fast).

``python misbehaving_engine.py MODE``: it answers ``hello`` properly, then on its first turn
misbehaves as MODE says: ``garbage`` prints a line that is not JSON, ``illegal`` plays a card
that is not in its hand, ``sleep`` never answers, ``exit`` quits with status 3. ``first``
behaves: it sends an ``info`` line, then plays the first card of its hand.
"""

import json
import sys
import time

RANKS = "23456789TJQKA"
SUITS = "CDHS"


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main(mode: str) -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            send({"type": "id", "name": f"misbehaving {mode}", "author": "kseri tests"})
        elif message["type"] == "quit":
            return
        elif message["type"] == "turn":
            hand = message["view"]["hand"]
            if mode == "garbage":
                print("e2e4 is a chess move, not kseri", flush=True)
            elif mode == "illegal":
                absent = next(r + s for r in RANKS for s in SUITS if r + s not in hand)
                send({"type": "play", "card": absent})
            elif mode == "sleep":
                time.sleep(60)
            elif mode == "exit":
                print("giving up", file=sys.stderr, flush=True)
                sys.exit(3)
            else:
                send({"type": "info", "depth": 1, "nodes": len(hand), "value": 0.0})
                send({"type": "play", "card": hand[0]})


if __name__ == "__main__":
    main(sys.argv[1])
