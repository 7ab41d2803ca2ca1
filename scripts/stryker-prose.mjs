/**
 * A Stryker ignorer for prose: the title, reason and remedy of a check, and the note of an
 * observation, are read by a person and decide no verdict, so mutating their words only costs the
 * mutation run time (each such mutant is static and runs every test file).
 */
import { PluginKind, declareValuePlugin } from '@stryker-mutator/api/plugin';

const PROSE = new Set(['title', 'reason', 'remedy', 'note']);

const keyName = (key) =>
  key.type === 'Identifier' ? key.name : key.type === 'StringLiteral' ? key.value : undefined;

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'prose', {
    shouldIgnore(path) {
      return path.isObjectProperty() && PROSE.has(keyName(path.node.key))
        ? 'prose for a person, deciding no verdict'
        : undefined;
    },
  }),
];
