// Drives `akushu gtp` through @sabaki/gtp, the GTP library Sabaki is built on, so the
// protocol is checked by a client akushu's authors did not write: live analysis
// (lz-analyze stopped by the next command), handicap and the SGF round trip.
//
// Usage: node analyze.js PATH_TO_AKUSHU. Exits non-zero on the first failed check.

'use strict'

const fs = require('fs')
const os = require('os')
const path = require('path')
const {Controller} = require('@sabaki/gtp')

const binary = process.argv[2]
if (!binary) {
  console.error('usage: node analyze.js PATH_TO_AKUSHU')
  process.exit(2)
}

// A small, fast UCT engine: the checks are about the protocol, not the play.
const engine = new Controller(binary, [
  'gtp',
  '--engine',
  'uct:sims=300',
  '--seed',
  '7',
  '--quiet'
])

function check(ok, what) {
  if (!ok) throw new Error(`check failed: ${what}`)
}

// Sends a command and returns the parsed response, failing on an error reply.
async function send(name, ...args) {
  const response = await engine.sendCommand({name, args})
  check(!response.error, `${name} ${args.join(' ')} answered ? ${response.content}`)
  return response
}

// Sends a command that must fail; returns the error text.
async function refuse(name, ...args) {
  const response = await engine.sendCommand({name, args})
  check(response.error, `${name} ${args.join(' ')} should fail, got = ${response.content}`)
  return response.content
}

// Parses one Leela Zero info line into candidates: {move, visits, winrate, prior, lcb,
// order, pv}.
function parseInfo(line) {
  const out = []
  let current = null
  const words = line.trim().split(/\s+/)
  for (let i = 0; i < words.length; i++) {
    const w = words[i]
    if (w === 'info') {
      current = {pv: []}
      out.push(current)
    } else if (current == null) {
      throw new Error(`info line does not start with info: ${line}`)
    } else if (w === 'pv') {
      while (i + 1 < words.length && words[i + 1] !== 'info') current.pv.push(words[++i])
    } else if (w === 'move') {
      current.move = words[++i]
    } else {
      current[w] = Number(words[++i])
    }
  }
  return out
}

const VERTEX = /^[A-HJ][1-9]$/

function isVertex(v) {
  return VERTEX.test(v) || v === 'pass'
}

function timeout(ms, what) {
  return new Promise((_, reject) =>
    setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms).unref()
  )
}

async function liveAnalysis() {
  await send('boardsize', '9')
  await send('clear_board')
  await send('play', 'B', 'E5')
  const commands = (await send('list_commands')).content.split('\n')
  for (const c of ['lz-analyze', 'loadsgf', 'printsgf', 'fixed_handicap']) {
    check(commands.includes(c), `list_commands names ${c}`)
  }

  // The subscriber sees every response line as it arrives; the analysis runs until the
  // next command is sent.
  const updates = []
  let gotTwo
  const two = new Promise(resolve => (gotTwo = resolve))
  const analysis = engine.sendCommand({name: 'lz-analyze', args: ['W', '10']}, ({line}) => {
    if (line.startsWith('info ')) {
      updates.push(parseInfo(line))
      if (updates.length >= 2) gotTwo()
    }
  })
  await Promise.race([two, timeout(30000, 'two lz-analyze updates')])
  const name = await send('name')
  check(name.content === 'akushu', `name after analysis: ${name.content}`)
  const response = await analysis
  check(!response.error, `lz-analyze answered ? ${response.content}`)
  const infoLines = response.content.split('\n').filter(l => l.startsWith('info '))
  check(infoLines.length >= 2, `lz-analyze response holds ${infoLines.length} info lines`)

  let lastTotal = -1
  for (const update of updates) {
    check(update.length > 0, 'an update lists candidates')
    let total = 0
    update.forEach((c, k) => {
      check(VERTEX.test(c.move) || c.move === 'pass', `candidate move ${c.move}`)
      check(c.move !== 'E5', 'the occupied E5 is no candidate')
      check(Number.isInteger(c.visits) && c.visits > 0, `visits ${c.visits}`)
      check(c.winrate >= 0 && c.winrate <= 10000, `winrate ${c.winrate}`)
      check(c.lcb >= 0 && c.lcb <= 10000, `lcb ${c.lcb}`)
      check(c.prior >= 0 && c.prior <= 10000, `prior ${c.prior}`)
      check(c.order === k, `order ${c.order} at place ${k}`)
      check(c.pv.length > 0 && c.pv[0] === c.move, `pv ${c.pv} starts with ${c.move}`)
      check(c.pv.every(isVertex), `pv ${c.pv} is vertices`)
      total += c.visits
    })
    check(total > lastTotal, `visits grow between updates (${lastTotal} then ${total})`)
    lastTotal = total
  }
  console.log(`lz-analyze: ${updates.length} updates, ${lastTotal} visits in the last`)
}

async function handicapAndSgf() {
  // Handicap on a board with a stone is refused; on the empty board it is placed.
  const busy = await refuse('fixed_handicap', '2')
  check(busy.includes('board not empty'), `fixed_handicap on a stone: ${busy}`)
  await refuse('fixed_handicap', '10')
  await send('clear_board')
  const stones = await send('fixed_handicap', '3')
  check(stones.content === 'C3 G7 C7', `fixed_handicap 3 placed ${stones.content}`)
  await send('play', 'W', 'E5')
  await send('play', 'B', 'D5')
  const move = (await send('genmove', 'W')).content
  check(isVertex(move), `genmove after handicap: ${move}`)

  const inline = (await send('printsgf')).content
  check(inline.startsWith('(;') && inline.includes('AB['), `printsgf: ${inline}`)
  const before = (await send('showboard')).content

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'akushu-sabaki-'))
  const file = path.join(dir, 'game.sgf')
  try {
    await send('printsgf', file)
    check(fs.readFileSync(file, 'utf8').trim() === inline, 'printsgf FILE writes printsgf')
    await send('clear_board')
    await send('loadsgf', file)
    const after = (await send('showboard')).content
    check(after === before, `loadsgf restores the board:\n${before}\n---\n${after}`)
    // GTP's move_number: the position before that move, here the handicap stones alone.
    await send('loadsgf', file, '1')
    const early = (await send('showboard')).content
    check(early.includes('X') && !early.includes('O'), `loadsgf FILE 1:\n${early}`)
    const missing = await refuse('loadsgf', path.join(dir, 'missing.sgf'))
    check(missing.includes('loadsgf'), `loadsgf of a missing file: ${missing}`)
  } finally {
    fs.rmSync(dir, {recursive: true, force: true})
  }
  console.log('handicap and SGF round trip: ok')
}

async function main() {
  engine.start()
  try {
    await liveAnalysis()
    await handicapAndSgf()
  } finally {
    await engine.stop()
  }
}

main().then(
  () => console.log('sabaki gtp checks passed'),
  err => {
    console.error(err.stack || String(err))
    process.exit(1)
  }
)
