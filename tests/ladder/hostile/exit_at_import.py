"""Leaves with os._exit(3) while being imported."""

import os

os._exit(3)
