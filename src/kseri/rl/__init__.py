"""Research interfaces (``pip install 'kseri[rl]'``): a shared observation encoding
(:mod:`kseri.rl.encoding`), a Gymnasium environment (:mod:`kseri.rl.gym_env`), a PettingZoo AEC
environment (:mod:`kseri.rl.pettingzoo_env`), an OpenSpiel game (:mod:`kseri.rl.openspiel_game`)
and a policy network's pure-numpy inference (:mod:`kseri.rl.policy`). See ``docs/rl.md``."""
