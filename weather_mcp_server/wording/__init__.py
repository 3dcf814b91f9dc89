"""How results read in the call's language (zh/en): the text beside each structured result."""
