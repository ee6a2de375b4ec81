"""The API schema the stand-in's ``herdr api schema`` prints, generated per herdr version.

``python -m simherdr.apischema`` rewrites ``simherdr/stub/data/api-schema-<version>.json``
from the simulator's own params specs and herdr's transcribed type table (see
:mod:`.generate`). It lives outside :mod:`simherdr.stub` because it reads the handlers; the
stand-in only reads the files it writes.
"""
