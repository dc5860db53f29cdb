"""What Linux keeps in lib/ and every layer may use: string-to-number parsing (kstrtox)."""
