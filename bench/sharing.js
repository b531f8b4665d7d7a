#!/usr/bin/env node
/*
 * Load benchmark: POST /sqs/api/donations (one recipient each, rotating over 1,000 recipients)
 * and GET /sqs/api/groups/<id>, on SQLite, JSON. After the run it checks that the plan's
 * remaining plus every allowance granted still equals what it started with.
 * Run: npm run build && node bench/sharing.js [seconds=10]
 * The server runs in a child process; autocannon (this process) drives it over loopback.
 */
'use strict';
const { seedDatabase, openDatabase, startServer, run, report, basic } = require('./harness');

const SECONDS = Number(process.argv[2] || 10);
const RECIPIENTS = 1000;
const START = 1_000_000_000_000;
const recipient = (i) => `3538730${String(i).padStart(5, '0')}`;

const sub = (msisdn) => ({
  tenant: 'bench',
  msisdn,
  status: 'active',
  paymentType: 'prepaid',
  balance: '0',
  currency: 'EUR',
});

const DATASET = {
  tenants: [{ name: 'bench' }],
  clients: [
    {
      tenant: 'bench',
      username: 'bench',
      password: 'bench-password',
      permissions: [
        'SQS_DONATION_PERMISSION',
        'SQS_GROUP_READ_PERMISSION',
        'SQS_GROUP_CREATE_UPDATE_PERMISSION',
      ],
    },
  ],
  subscribers: [sub('353871000001'), ...Array.from({ length: RECIPIENTS }, (_, i) => sub(recipient(i)))],
  planDefinitions: [
    {
      tenant: 'bench',
      name: 'Bench',
      unitMeteringType: 'volume',
      unitAmount: START,
      shareable: true,
      recurring: true,
      shareQuotaType: 'amount',
      maxRecipients: 1000,
    },
  ],
  subscriberPlans: [
    { tenant: 'bench', id: 1, msisdn: '353871000001', planDefinition: 'Bench', remaining: START },
  ],
};

async function main() {
  const { url, db: seeded, cleanup } = await seedDatabase(DATASET);
  await seeded.destroy();
  const { base, stop } = await startServer(url);
  const headers = {
    authorization: basic('bench', 'bench-password'),
    tenant: 'bench',
    permissions: 'SQS_DONATION_PERMISSION',
    'content-type': 'application/json',
    accept: 'application/json',
  };
  const group = await (
    await fetch(`${base}/sqs/api/groups`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ ownerId: '353871000001', name: 'bench' }),
    })
  ).json();
  for (let i = 0; i < 10; i++)
    await fetch(`${base}/sqs/api/groups/${group.id}/members`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ memberId: recipient(i), quota: 1 }),
    });
  let n = 0;
  const cases = [
    [
      'donation, 1 recipient',
      {
        url: `${base}/sqs/api/donations`,
        method: 'POST',
        headers,
        connections: 16,
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({
                donorId: '353871000001',
                donorPlanId: 1,
                quotaType: 'amount',
                recipients: [{ recipientId: recipient(n++ % RECIPIENTS), quota: 1000 }],
              }),
            }),
          },
        ],
      },
    ],
    ['group with 10 members', { url: `${base}/sqs/api/groups/${group.id}`, headers, connections: 32 }],
  ];
  for (const [name, opts] of cases) report(name, await run({ ...opts, duration: SECONDS }));
  stop();
  const db = openDatabase(url);
  const remaining = Number((await db('subscriber_plans').where({ id: 1 }).first()).remaining);
  const granted = Number((await db('allowances').sum({ s: 'amount' }).first()).s);
  const donations = Number((await db('donations').count({ n: '*' }).first()).n);
  console.log(
    `${donations} donations; remaining ${remaining} + granted ${granted} = ${remaining + granted} (started ${START}) ${remaining + granted === START ? 'conserved' : 'NOT CONSERVED'}`,
  );
  await db.destroy();
  cleanup();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
