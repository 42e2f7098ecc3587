print("cairn-bench: not yet")
