"""Places: what a name means (the offline gazetteer, then Open-Meteo geocoding), and asking which one when unclear."""
