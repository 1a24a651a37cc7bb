"""What a figure the pipeline drew shows, for the tests to hold against its tables."""


def plotted(figure):
    """(label, x values, y values) of each line and each set of markers of a figure."""
    shown = []
    for axes in figure.axes:
        for line in axes.get_lines():
            shown.append((line.get_label(), [float(x) for x in line.get_xdata()], [float(y) for y in line.get_ydata()]))
        for markers in axes.collections:
            points = markers.get_offsets()
            shown.append((markers.get_label(), [float(x) for x, _ in points], [float(y) for _, y in points]))
    return shown
