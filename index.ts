// Public entry for embedding tsipfs: the container, registry and plugin API.
export {}
