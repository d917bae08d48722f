"""torch.utils of the stand-in."""
