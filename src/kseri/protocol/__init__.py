"""The engine protocol: JSON lines over stdin/stdout between a host and a kseri engine.

``messages`` defines and checks the messages, ``engine_side`` serves a bot over stdio, and
``client`` drives an external engine process as an :class:`~kseri.agents.Agent`.
"""
