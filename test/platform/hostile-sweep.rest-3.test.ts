import { hostileSweep } from '../support/hostile-sweep.ts';

// The hostile-input sweep (test/support/hostile-sweep.ts), the share of it this file runs.
hostileSweep({ surface: 'rest', shard: 2, shards: 3 });
