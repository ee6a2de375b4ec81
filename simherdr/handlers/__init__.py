"""herdr's socket methods, one module per herdr area (SOCKET.md §4).

Each area registers its methods with :func:`.registry.method` when it is imported. Importing
this package imports none of them: :data:`.registry.INDEX` lists every method with its area,
and the simulator's table (:class:`.registry.Methods`) imports an area on the first use of one
of its methods; :func:`.registry.load_all` imports them all. Adding an area or a method is a
row in INDEX (a test checks it against the registrations).
"""
