import semver from 'semver';
import lock from '../../package-lock.json';
import pkg from '../../package.json';

describe('Node engine range and dependency pins agree (no EBADENGINE)', () => {
  const packages = Object.entries(
    (lock as { packages: Record<string, { engines?: { node?: string } }> }).packages,
  );
  const lowest = semver.minVersion(pkg.engines.node)!.version;

  it.each([
    ['the lowest version package.json allows', lowest],
    ['the running Node', process.version],
  ])('every locked package accepts %s (%s)', (_what, version) => {
    const refusing = packages
      .filter(([, p]) => typeof p.engines?.node === 'string')
      .filter(([, p]) => !semver.satisfies(version, p.engines!.node!, { includePrerelease: true }))
      .map(([name, p]) => `${name} wants node ${p.engines!.node}`);
    expect(refusing).toEqual([]);
  });
});
