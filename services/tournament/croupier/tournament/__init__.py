"""The tournament director: registration, levels, rebuys, seating, ranking, prizes."""
