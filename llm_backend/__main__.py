"""`python -m llm_backend [serve|pull] ...`: the same as the `llm-backend` command."""
import sys

from llm_backend.cli import main

sys.exit(main())
