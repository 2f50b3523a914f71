"""In-tree scheduler plugins, one per module, named like upstream's."""
