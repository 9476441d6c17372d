// electron-vite's module suffixes (`?modulePath`: the built path of a script of its own).
/// <reference types="electron-vite/node" />
