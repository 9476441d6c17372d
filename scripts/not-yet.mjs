// Placeholder for a script whose part of the app has not landed yet.
console.log(`"npm run ${process.argv[2] ?? ''}" is not available yet.`);
