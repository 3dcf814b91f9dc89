"""Clean-ups of the router's arguments the schema cannot express, one module per kind of argument: which
free-text arguments the question states (stated.py; a small model fills what a follow-up leaves out with something
made up), places nobody named (places.py) and places as the question writes them (place_names.py), flags it turned
on unasked (flags.py), hours of the day the question does not mention (hours.py), a day other than the asked one
(days.py), and numbers the question does not give (numbers.py). Which argument is a place, an hour or a day is
read from the tool's schema; each change is logged."""
