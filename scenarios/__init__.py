"""World families built on the sandbox engine, one subpackage each."""
