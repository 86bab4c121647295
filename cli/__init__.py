"""The `ladder` command line: the top layer, which may import every other package and which none imports."""
