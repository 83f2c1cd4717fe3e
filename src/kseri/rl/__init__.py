"""Research interfaces (``pip install 'kseri[rl]'``): a Gymnasium environment
(:mod:`kseri.rl.gym_env`), a PettingZoo AEC environment (:mod:`kseri.rl.pettingzoo_env`), an
OpenSpiel game (:mod:`kseri.rl.openspiel_game`) and OpenSpiel's IS-MCTS as an agent
(:mod:`kseri.rl.ismcts`), all observing through the shared encoding of a view
(:mod:`kseri.agents.encoding`). See ``docs/rl.md``."""
