import { render } from 'preact'
import { App } from './ui/App.js'
import './styles.css'

render(<App />, document.getElementById('app')!)
