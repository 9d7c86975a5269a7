"""The gateway's pure rules: what a well-formed request is, who may do what."""
