"""`lazy doctor`: a health sweep of capture, the store and what `ask` needs, and its repairs.

``checks.CHECKS`` is the one list of the sweep's checks, ``repairs.REPAIRS`` the one list of
the repairs they point at (not imported here: a check of one part needs only its module).
"""
